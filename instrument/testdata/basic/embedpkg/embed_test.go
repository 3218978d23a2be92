package embedpkg

import "testing"

func TestEmbed(t *testing.T) {
	if Greeting() != "hello, xbtest\n" {
		t.Errorf("Greeting() = %q", Greeting())
	}
}
