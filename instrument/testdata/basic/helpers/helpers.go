// Package helpers is tested with test helpers.
package helpers
