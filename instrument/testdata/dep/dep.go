// Package dep is the main module's only package. The tests of
// instrument run xbtest on packages of its dependencies, named by import
// path; its go.sum lacks the modules those packages' tests import
// (github.com/stretchr/testify for go.uber.org/atomic).
package dep
