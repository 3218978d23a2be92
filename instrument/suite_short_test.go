//go:build !long

package instrument

// longSuite is false in go test ./...: the slow end-to-end tests run a
// part of their cases (go test -tags long runs all; see README).
const longSuite = false
