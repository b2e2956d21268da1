#include "textflag.h"

// entry is entry_linux_amd64.s's for arm64: GOMEMLIMIT is hidden from the
// runtime before it starts. The initial stack (the kernel's
// create_elf_tables, fs/binfmt_elf.c): argc at 0(RSP), then argv and envp,
// each ending in a null pointer.
TEXT ·entry(SB), NOSPLIT|NOFRAME, $0
	MOVD	0(RSP), R0
	ADD	$2, R0, R0
	LSL	$3, R0, R0
	MOVD	RSP, R1
	ADD	R0, R1, R1
	SUB	$16, RSP
	MOVD	R1, 8(RSP)
	BL	·hideMemLimit(SB)
	ADD	$16, RSP
	B	_rt0_arm64_linux(SB)

// func hideMemLimit(envp **byte): entry_linux_amd64.s's.
TEXT ·hideMemLimit(SB), NOSPLIT, $0-8
	MOVD	envp+0(FP), R1
next:
	MOVD	0(R1), R2
	CBZ	R2, done
	ADD	$8, R1, R1
	MOVBU	0(R2), R3
	CMP	$'G', R3
	BNE	next
	MOVBU	1(R2), R3
	CMP	$'O', R3
	BNE	next
	MOVBU	2(R2), R3
	CMP	$'M', R3
	BNE	next
	MOVBU	3(R2), R3
	CMP	$'E', R3
	BNE	next
	MOVBU	4(R2), R3
	CMP	$'M', R3
	BNE	next
	MOVBU	5(R2), R3
	CMP	$'L', R3
	BNE	next
	MOVBU	6(R2), R3
	CMP	$'I', R3
	BNE	next
	MOVBU	7(R2), R3
	CMP	$'M', R3
	BNE	next
	MOVBU	8(R2), R3
	CMP	$'I', R3
	BNE	next
	MOVBU	9(R2), R3
	CMP	$'T', R3
	BNE	next
	MOVBU	10(R2), R3
	CMP	$'=', R3
	BNE	next
	MOVD	$'g', R3
	MOVB	R3, 0(R2)
	MOVD	$1, R3
	MOVD	$·entryShim(SB), R4
	MOVB	R3, 0(R4)
	B	next
done:
	RET
