//go:build long

package instrument

// longSuite is true under go test -tags long: the slow end-to-end tests run
// in full (.ci/run runs them after go test ./...).
const longSuite = true
