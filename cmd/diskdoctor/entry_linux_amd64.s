#include "textflag.h"

// memLimitName is the variable hideMemLimit renames, with its '='.
#define memLimitNameLen 11
DATA	memLimitName<>+0(SB)/8, $"GOMEMLIM"
DATA	memLimitName<>+8(SB)/3, $"IT="
GLOBL	memLimitName<>(SB), RODATA|NOPTR, $memLimitNameLen

// entry is the program's ELF entry point when it is linked with
// -ldflags "-E main.entry" (make build, packaging/build-deb.sh): it runs
// before the Go runtime, whose schedinit aborts with exit status 2 (a
// verdict's) on a GOMEMLIMIT it cannot parse (runtime/mgcpacer.go,
// readGOMEMLIMIT). It hides GOMEMLIMIT from the runtime (hideMemLimit)
// and jumps to the runtime's own entry; main reads the value back
// (memlimit_entry.go).
//
// The initial stack (System V ABI, AMD64 supplement, 3.4.1): argc at 0(SP),
// argv from 8(SP) ending in a null pointer, then envp ending in one.
TEXT ·entry(SB), NOSPLIT|NOFRAME, $0
	MOVQ	0(SP), AX
	LEAQ	16(SP)(AX*8), BX
	SUBQ	$8, SP
	MOVQ	BX, 0(SP)
	CALL	·hideMemLimit(SB)
	ADDQ	$8, SP
	JMP	_rt0_amd64_linux(SB)

// func hideMemLimit(envp **byte)
//
// hideMemLimit renames each GOMEMLIMIT= of the null-terminated list envp
// to gOMEMLIMIT= in place and sets entryShim when it renamed one. Each
// string is compared with memLimitName a byte at a time, so no byte past
// its terminating NUL is read.
TEXT ·hideMemLimit(SB), NOSPLIT, $0-8
	MOVQ	envp+0(FP), BX
next:
	MOVQ	0(BX), CX
	TESTQ	CX, CX
	JZ	done
	ADDQ	$8, BX
	LEAQ	memLimitName<>(SB), SI
	XORQ	DX, DX
compare:
	MOVB	(CX)(DX*1), AX
	CMPB	AL, (SI)(DX*1)
	JNE	next
	INCQ	DX
	CMPQ	DX, $memLimitNameLen
	JLT	compare
	MOVB	$'g', 0(CX)
	MOVB	$1, ·entryShim(SB)
	JMP	next
done:
	RET
