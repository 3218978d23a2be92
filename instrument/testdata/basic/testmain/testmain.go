// Package testmain has a TestMain.
package testmain

// Ready is set by TestMain.
var Ready bool
