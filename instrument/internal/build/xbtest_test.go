package build

import (
	"strings"
	"testing"
)

func TestRequireGo(t *testing.T) {
	got, err := requireGo([]byte("// Copyright\n\n//go:build amd64 || arm64\n\npackage p\n"), "1.26.0")
	if err != nil || !strings.Contains(string(got), "//go:build go1.26 && (amd64 || arm64)\n") {
		t.Errorf("requireGo: %q, %v", got, err)
	}
	got, _ = requireGo([]byte("package p\n"), "1.26.0")
	if string(got) != "//go:build go1.26\n\npackage p\n" {
		t.Errorf("requireGo: %q", got)
	}
	if !VersionLess("1.12", "1.18") || VersionLess("1.26", "1.26") || !VersionLess("1.26", "1.26.0") {
		t.Error("VersionLess")
	}
}
