//go:build amd64 && !noasm

#include "textflag.h"

// func proxVec(z, w, gr *float64, n int, step, t, beta float64, acc *[12]float64)
TEXT ·proxVec(SB), NOSPLIT, $0-64
	MOVQ z+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ gr+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ acc+56(FP), AX
	VBROADCASTSD step+32(FP), Y0
	VBROADCASTSD t+40(FP), Y1
	VXORPD Y2, Y2, Y2
	VSUBPD Y1, Y2, Y2 // -t
	VBROADCASTSD beta+48(FP), Y3
	VMOVUPD 0(AX), Y10  // Σ d²
	VMOVUPD 32(AX), Y11 // Σ zₙ²
	VMOVUPD 64(AX), Y12 // Σ (w−zₙ)·d
	SHRQ $2, CX
	JZ done

loop:
	VMOVUPD (SI), Y4       // w
	VMOVUPD (DX), Y5       // g
	VMULPD Y5, Y0, Y5      // step·g
	VSUBPD Y5, Y4, Y6      // v = w − step·g
	VMINPD Y6, Y1, Y7      // min(t, v), v if NaN
	VMAXPD Y7, Y2, Y7      // max(−t, ·), NaN kept
	VSUBPD Y7, Y6, Y8      // zₙ = v − clamp
	VMOVUPD (DI), Y9       // z
	VSUBPD Y9, Y8, Y9      // d = zₙ − z
	VMULPD Y9, Y9, Y13
	VADDPD Y13, Y10, Y10
	VMULPD Y8, Y8, Y13
	VADDPD Y13, Y11, Y11
	VSUBPD Y8, Y4, Y13     // w − zₙ
	VMULPD Y9, Y13, Y13
	VADDPD Y13, Y12, Y12
	VMULPD Y9, Y3, Y13     // beta·d
	VADDPD Y13, Y8, Y13    // zₙ + beta·d
	VMOVUPD Y13, (SI)
	VMOVUPD Y8, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ loop

done:
	VMOVUPD Y10, 0(AX)
	VMOVUPD Y11, 32(AX)
	VMOVUPD Y12, 64(AX)
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
