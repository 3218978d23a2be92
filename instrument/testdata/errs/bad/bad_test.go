package bad

import "testing"

func TestF(t *testing.T) { F() }
