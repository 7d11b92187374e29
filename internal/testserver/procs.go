package testserver

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Servers such as postgres put every child in a session of its own, so a
// process-group signal misses them. These helpers find a server's
// descendants through /proc instead.

// procStat returns the parent pid and state letter of pid from
// /proc/<pid>/stat; ok is false when the process is gone.
func procStat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may contain spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0], true
}

// processTree returns pid and all its live descendants.
func processTree(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []int{pid}
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(p); ok {
			children[ppid] = append(children[ppid], p)
		}
	}
	tree := []int{pid}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i]]...)
	}
	return tree
}

// signalTree sends sig to every process in pids.
func signalTree(pids []int, sig syscall.Signal) {
	for _, p := range pids {
		_ = syscall.Kill(p, sig)
	}
}

// alive reports whether pid exists and is not a zombie. Orphaned zombies
// may never be reaped when PID 1 does not reap, but they hold no resources
// (ports, shared memory), so they count as gone.
func alive(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != 'Z'
}

// waitGone polls until none of pids is alive or limit passes.
func waitGone(pids []int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		any := false
		for _, p := range pids {
			if alive(p) {
				any = true
				break
			}
		}
		if !any {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
