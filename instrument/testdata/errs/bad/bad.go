// Package bad does not compile.
package bad

// F returns a string as an int.
func F() int {
	return "not an int" // COMPILE ERROR
}
