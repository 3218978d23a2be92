// Package tags has files selected by build tags.
package tags

// Name returns which file was built.
func Name() string { return name }
