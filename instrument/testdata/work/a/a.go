// Package a is tested in a workspace.
package a
