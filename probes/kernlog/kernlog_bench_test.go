package kernlog

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkClassifyKernelLog: a 1,000-disk machine's boot log (about 16
// lines per disk) with a few hundred errors.
func BenchmarkClassifyKernelLog(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&sb, "[    1.%06d] ata%d: SATA link up 6.0 Gbps (SStatus 133 SControl 300)\n", i, i+1)
		for j := 0; j < 14; j++ {
			fmt.Fprintf(&sb, "[    1.%06d] sd %d:0:0:0: [sd%c%c] Mode Sense: 00 3a 00 00\n", i, i, 'a'+i/26%26, 'a'+i%26)
		}
		fmt.Fprintf(&sb, "[    1.%06d] sd %d:0:0:0: [sd%c%c] Write cache: enabled, read cache: enabled\n", i, i, 'a'+i/26%26, 'a'+i%26)
	}
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&sb, "[ 900.%06d] ata7: hard resetting link\n", i)
	}
	k := &Log{Lines: Parse([]byte(sb.String()))}
	topo := &Topology{}
	topo.LearnFromLog(k)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		GroupEvents(Classify(k, topo, 1000))
	}
}
