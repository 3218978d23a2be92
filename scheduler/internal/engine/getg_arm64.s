#include "textflag.h"

// func getg() uintptr
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET

// func stackBounds() (lo, hi uintptr)
TEXT ·stackBounds(SB),NOSPLIT,$0-16
	MOVD 0(g), R0
	MOVD 8(g), R1
	MOVD R0, lo+0(FP)
	MOVD R1, hi+8(FP)
	RET

// func callerFP() uintptr: the frame pointer of the Go function that calls
// it (NOFRAME: R29 is still the caller's).
TEXT ·callerFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVD R29, R0
	MOVD R0, ret+0(FP)
	RET
