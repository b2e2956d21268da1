#include "textflag.h"

// memLimitName is the variable hideMemLimit renames, with its '='.
#define memLimitNameLen 11
DATA	memLimitName<>+0(SB)/8, $"GOMEMLIM"
DATA	memLimitName<>+8(SB)/3, $"IT="
GLOBL	memLimitName<>(SB), RODATA|NOPTR, $memLimitNameLen

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
	MOVD	$memLimitName<>(SB), R5
	MOVD	$0, R6
compare:
	MOVBU	(R2)(R6), R3
	MOVBU	(R5)(R6), R4
	CMP	R4, R3
	BNE	next
	ADD	$1, R6, R6
	CMP	$memLimitNameLen, R6
	BLT	compare
	MOVD	$'g', R3
	MOVB	R3, 0(R2)
	MOVD	$1, R3
	MOVD	$·entryShim(SB), R4
	MOVB	R3, 0(R4)
	B	next
done:
	RET
