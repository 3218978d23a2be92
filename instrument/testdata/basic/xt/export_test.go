package xt

// Check is helper for the external tests.
var Check = helper
