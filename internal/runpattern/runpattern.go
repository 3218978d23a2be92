// Package runpattern splits go test's -run and -skip expressions into their
// levels as the testing package does, for the command (which tests a
// binary has) and the scheduler (which subtests run).
package runpattern

// Split splits a -run or -skip expression at its slashes outside brackets
// and parentheses: one expression per level of a test's name.
func Split(s string) []string {
	var parts []string
	cs, cp := 0, 0 // depth of [] and ()
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			cs++
		case ']':
			if cs--; cs < 0 {
				cs = 0
			}
		case '(':
			if cs == 0 {
				cp++
			}
		case ')':
			if cs == 0 {
				cp--
			}
		case '\\':
			i++
		case '/':
			if cs == 0 && cp == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
