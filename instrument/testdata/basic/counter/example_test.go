package counter

import "fmt"

// ExamplePrinted has an output comment: go test runs it, xbtest does not
// (the package's line says so).
func ExamplePrinted() {
	fmt.Println("counted")
	// Output: counted
}

// ExampleCompiled has none: go test only compiles it.
func ExampleCompiled() {
	fmt.Println("not run")
}
