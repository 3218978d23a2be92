package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestTestKind(t *testing.T) {
	src := `package p
import "testing"
func TestA(t *testing.T) {}
func Testb(t *testing.T) {}
func TestMain(m *testing.M) {}
func Test(t *testing.T) {}
func BenchmarkA(b *testing.B) {}
func FuzzA(f *testing.F) {}
func ExampleA() {}
func Example_b() {}
func ExampleC(x int) {}
func TestG[T any](t *testing.T) {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "/x/f.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]funcKind{"TestA": kindTest, "Testb": kindOther, "TestMain": kindOther, "Test": kindTest,
		"BenchmarkA": kindDrop, "FuzzA": kindDrop, "ExampleA": kindDrop, "Example_b": kindDrop, "ExampleC": kindOther, "TestG": kindOther}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			if got := testKind(fd); got != want[fd.Name.Name] {
				t.Errorf("%s: kind %d, want %d", fd.Name.Name, got, want[fd.Name.Name])
			}
		}
	}
}
