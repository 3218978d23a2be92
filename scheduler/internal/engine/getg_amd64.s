#include "textflag.h"

// func getg() uintptr
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET

// func stackBounds() (lo, hi uintptr)
TEXT ·stackBounds(SB),NOSPLIT,$0-16
	MOVQ (TLS), AX
	MOVQ 0(AX), BX
	MOVQ 8(AX), CX
	MOVQ BX, lo+0(FP)
	MOVQ CX, hi+8(FP)
	RET

// func callerFP() uintptr: the frame pointer of the Go function that calls
// it (NOFRAME: BP is still the caller's).
TEXT ·callerFP(SB),NOSPLIT|NOFRAME,$0-8
	MOVQ BP, ret+0(FP)
	RET
