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

// func axpy4Vec(acc *float64, n int, v *float64, a0, a1, a2, a3 *float64)
TEXT ·axpy4Vec(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ v+16(FP), AX
	MOVQ a0+24(FP), R8
	MOVQ a1+32(FP), R9
	MOVQ a2+40(FP), R10
	MOVQ a3+48(FP), R11
	VBROADCASTSD 0(AX), Y0
	VBROADCASTSD 8(AX), Y1
	VBROADCASTSD 16(AX), Y2
	VBROADCASTSD 24(AX), Y3
	XORQ BX, BX
	SHRQ $2, CX
	JZ axdone

axloop:
	VMOVUPD (DI)(BX*8), Y4
	VMULPD (R8)(BX*8), Y0, Y5
	VADDPD Y5, Y4, Y4
	VMULPD (R9)(BX*8), Y1, Y6
	VADDPD Y6, Y4, Y4
	VMULPD (R10)(BX*8), Y2, Y7
	VADDPD Y7, Y4, Y4
	VMULPD (R11)(BX*8), Y3, Y8
	VADDPD Y8, Y4, Y4
	VMOVUPD Y4, (DI)(BX*8)
	ADDQ $4, BX
	DECQ CX
	JNZ axloop

axdone:
	VZEROUPPER
	RET

// func axpy1Vec(acc *float64, n int, v float64, a *float64)
TEXT ·axpy1Vec(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), DI
	MOVQ n+8(FP), CX
	VBROADCASTSD v+16(FP), Y0
	MOVQ a+24(FP), R8
	XORQ BX, BX
	SHRQ $2, CX
	JZ ax1done

ax1loop:
	VMOVUPD (DI)(BX*8), Y4
	VMULPD (R8)(BX*8), Y0, Y5
	VADDPD Y5, Y4, Y4
	VMOVUPD Y4, (DI)(BX*8)
	ADDQ $4, BX
	DECQ CX
	JNZ ax1loop

ax1done:
	VZEROUPPER
	RET

// func countVec(cnt *int, row *float64, n int) int
TEXT ·countVec(SB), NOSPLIT, $0-32
	MOVQ cnt+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ n+16(FP), CX
	VXORPD Y0, Y0, Y0 // 0
	VXORPD X5, X5, X5 // −(non-zeros), two lanes
	SHRQ $2, CX
	JZ cntdone

cntloop:
	VCMPPD $4, (SI), Y0, Y1 // row[i] ≠ 0 (NaN too): all ones, −1
	VEXTRACTF128 $1, Y1, X2
	VMOVDQU (DI), X3
	VPSUBQ X1, X3, X3
	VMOVDQU X3, (DI)
	VMOVDQU 16(DI), X4
	VPSUBQ X2, X4, X4
	VMOVDQU X4, 16(DI)
	VPADDQ X1, X5, X5
	VPADDQ X2, X5, X5
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ cntloop

cntdone:
	VPSHUFD $0x4e, X5, X6
	VPADDQ X6, X5, X5
	VMOVQ X5, AX
	NEGQ AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
