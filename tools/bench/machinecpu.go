package main

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// clockTick is the unit of /proc/stat's times: USER_HZ, 100 on Linux.
const clockTick = 10 * time.Millisecond

// machineCPU is the CPU time all processes of this machine have spent
// (every state but idle and iowait, on every core), from /proc/stat; 0
// where it cannot be read. The production run subtracts its own process's
// time from its growth to show what the rest of the machine (PostgreSQL,
// which shares the cores in CI and in the README's set-up) spent on each
// side's requests.
func machineCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(string(v), 10, 64)
		busy += n
	}
	return time.Duration(busy) * clockTick
}
