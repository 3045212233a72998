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

// func dot3x3Vec(a *float64, lda int, b0, b1, b2 *float64, n int, out *[9]float64)
TEXT ·dot3x3Vec(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), AX
	SHLQ $3, AX
	LEAQ (SI)(AX*1), R8
	LEAQ (R8)(AX*1), R9
	MOVQ b0+16(FP), DX
	MOVQ b1+24(FP), R11
	MOVQ b2+32(FP), R12
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	XORQ BX, BX
	SHRQ $2, CX
	JZ d33done

d33loop:
	VMOVUPD (SI)(BX*8), Y9
	VMOVUPD (R8)(BX*8), Y10
	VMOVUPD (R9)(BX*8), Y11
	VMOVUPD (DX)(BX*8), Y12
	VMOVUPD (R11)(BX*8), Y13
	VMOVUPD (R12)(BX*8), Y14
	VFMADD231PD Y12, Y9, Y0
	VFMADD231PD Y13, Y9, Y1
	VFMADD231PD Y14, Y9, Y2
	VFMADD231PD Y12, Y10, Y3
	VFMADD231PD Y13, Y10, Y4
	VFMADD231PD Y14, Y10, Y5
	VFMADD231PD Y12, Y11, Y6
	VFMADD231PD Y13, Y11, Y7
	VFMADD231PD Y14, Y11, Y8
	ADDQ $4, BX
	DECQ CX
	JNZ d33loop

d33done:
	// out[i] = (l0+l2) + (l1+l3) of accumulator i.
	VEXTRACTF128 $1, Y0, X15
	VADDPD X15, X0, X0
	VHADDPD X0, X0, X0
	VMOVSD X0, 0(DI)
	VEXTRACTF128 $1, Y1, X15
	VADDPD X15, X1, X1
	VHADDPD X1, X1, X1
	VMOVSD X1, 8(DI)
	VEXTRACTF128 $1, Y2, X15
	VADDPD X15, X2, X2
	VHADDPD X2, X2, X2
	VMOVSD X2, 16(DI)
	VEXTRACTF128 $1, Y3, X15
	VADDPD X15, X3, X3
	VHADDPD X3, X3, X3
	VMOVSD X3, 24(DI)
	VEXTRACTF128 $1, Y4, X15
	VADDPD X15, X4, X4
	VHADDPD X4, X4, X4
	VMOVSD X4, 32(DI)
	VEXTRACTF128 $1, Y5, X15
	VADDPD X15, X5, X5
	VHADDPD X5, X5, X5
	VMOVSD X5, 40(DI)
	VEXTRACTF128 $1, Y6, X15
	VADDPD X15, X6, X6
	VHADDPD X6, X6, X6
	VMOVSD X6, 48(DI)
	VEXTRACTF128 $1, Y7, X15
	VADDPD X15, X7, X7
	VHADDPD X7, X7, X7
	VMOVSD X7, 56(DI)
	VEXTRACTF128 $1, Y8, X15
	VADDPD X15, X8, X8
	VHADDPD X8, X8, X8
	VMOVSD X8, 64(DI)
	VZEROUPPER
	RET

// func proxShiftVec(z, w, gr, br *float64, n int, o, step, t, beta float64, acc *[12]float64, ws *[4]float64)
TEXT ·proxShiftVec(SB), NOSPLIT, $0-88
	MOVQ z+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ gr+16(FP), DX
	MOVQ br+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ acc+72(FP), AX
	MOVQ ws+80(FP), R8
	VBROADCASTSD o+40(FP), Y15
	VBROADCASTSD step+48(FP), Y0
	VBROADCASTSD t+56(FP), Y1
	VXORPD Y2, Y2, Y2
	VSUBPD Y1, Y2, Y2 // -t
	VBROADCASTSD beta+64(FP), Y3
	VMOVUPD 0(AX), Y10  // Σ d²
	VMOVUPD 32(AX), Y11 // Σ zₙ²
	VMOVUPD 64(AX), Y12 // Σ (w−zₙ)·d
	VMOVUPD 0(R8), Y14  // Σ new w
	SHRQ $2, CX
	JZ sdone

sloop:
	VMOVUPD (SI), Y4       // w
	VMOVUPD (BX), Y5       // b
	VSUBPD Y5, Y15, Y5     // o − b
	VMOVUPD (DX), Y6       // g
	VADDPD Y5, Y6, Y5      // g + (o − b)
	VMULPD Y5, Y0, Y5      // step·(…)
	VSUBPD Y5, Y4, Y6      // v = w − step·(…)
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
	VADDPD Y13, Y14, Y14
	VMOVUPD Y13, (SI)
	VMOVUPD Y8, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, BX
	DECQ CX
	JNZ sloop

sdone:
	VMOVUPD Y10, 0(AX)
	VMOVUPD Y11, 32(AX)
	VMOVUPD Y12, 64(AX)
	VMOVUPD Y14, 0(R8)
	VZEROUPPER
	RET
