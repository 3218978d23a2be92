package sample

// rng is splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a generator
// whose whole state is one word, so it is handed between processes (fork
// checkpoints) as it is, and seeded per sample.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a uniform integer in [0, n), n > 0.
func (r *rng) intn(n int) int {
	// Lemire's multiply-shift with rejection: no modulo bias.
	bound := uint64(n)
	for {
		x := r.next()
		hi, lo := mul64(x, bound)
		if lo >= bound || lo >= -bound%bound {
			return int(hi)
		}
	}
}

func mul64(x, y uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	x0, x1 := x&mask32, x>>32
	y0, y1 := y&mask32, y>>32
	w0 := x0 * y0
	t := x1*y0 + w0>>32
	w1, w2 := t&mask32, t>>32
	w1 += x0 * y1
	hi = x1*y1 + w2 + w1>>32
	lo = x * y
	return
}

// seeded returns the generator of sample i of seed.
func seeded(seed uint64, i int) rng {
	r := rng{s: seed}
	r.next()
	r.s ^= uint64(i) * 0xd1b54a32d192ed03
	return r
}
