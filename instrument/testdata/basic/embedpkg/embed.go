// Package embedpkg embeds a file.
package embedpkg

import _ "embed"

//go:embed greeting.txt
var greeting string

// Greeting returns the embedded text.
func Greeting() string { return greeting }
