package eraser

// clock is a vector clock indexed by goroutine creation index.
type clock []uint32

func (c clock) get(t int32) uint32 {
	if int(t) < len(c) {
		return c[t]
	}
	return 0
}

func (c clock) set(t int32, v uint32) clock {
	for int(t) >= len(c) {
		c = append(c, 0)
	}
	c[t] = v
	return c
}

func (c clock) tick(t int32) clock { return c.set(t, c.get(t)+1) }

// join returns the pointwise maximum of c and o, reusing c.
func (c clock) join(o clock) clock {
	for len(c) < len(o) {
		c = append(c, 0)
	}
	for i, v := range o {
		c[i] = max(c[i], v)
	}
	return c
}
