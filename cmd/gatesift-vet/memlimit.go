package main

import (
	"bytes"
	"os"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
)

// The standalone driver's peak resident set is the garbage collector's
// goal, twice the live heap at the last collection, while its largest
// package is in flight (docs/evaluation.md, "What holds the memory on
// vitess": 840 MB live, 1.4 to 1.6 GB resident). Half of that peak is
// garbage not yet collected, so a run whose live heap needs more than half
// the machine can run out of memory it does not need. A soft limit at the
// memory the process may use (the smaller of the memory available when it
// starts and its cgroup's limit), less headroom for what the limit does
// not govern well (goroutine stacks, memory the runtime has freed but the
// kernel not yet taken back, the go command it runs), makes the collector
// work harder near that line instead: the run slows down where it would
// otherwise have died, and nothing changes while the goal fits. It is not
// a target for the peak: on a machine with room to spare it never binds.

// memoryLimitShare is the part of the usable memory given to the limit:
// nine tenths, the headroom the Go garbage collector guide advises leaving
// under a container's limit ("5-10%").
const memoryLimitNumerator, memoryLimitDenominator = 9, 10

// setMemoryLimit sets the soft memory limit from the machine, unless the
// user set one (GOMEMLIMIT, which the runtime has already applied) or
// nothing says how much memory there is. It returns the limit set, or 0.
func setMemoryLimit() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	limit := memoryLimit(readFileOrNil("/proc/meminfo"), cgroupLimit(readFileOrNil("/proc/self/cgroup"), readFileOrNil))
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return limit
}

// standaloneGCPercent is the collector's growth target in the standalone
// driver when the user set none (GOGC): the peak is the collector's goal
// while the largest package is in flight, half of it garbage at the
// default 100. At 70 the peak on vitess ./... fell from 1588 to 1239 MB for
// 3% more wall time (33.4 s against 32.4 s; 50 gave 1173 MB for 20% more:
// docs/evaluation.md, "The standalone driver's collector target").
const standaloneGCPercent = 70

// setGCPercent sets standaloneGCPercent unless GOGC is set (the runtime has
// applied it). It returns the percent set, or 0.
func setGCPercent(gogc string) int {
	if gogc != "" {
		return 0
	}
	debug.SetGCPercent(standaloneGCPercent)
	return standaloneGCPercent
}

// memoryLimit is the limit for a process with the given /proc/meminfo and
// cgroup limit (0 for none): nine tenths of the smaller of MemAvailable and
// the cgroup limit, or 0 when neither is known.
func memoryLimit(meminfo []byte, cgroup int64) int64 {
	usable := memAvailable(meminfo)
	if cgroup > 0 && (usable == 0 || cgroup < usable) {
		usable = cgroup
	}
	return usable / memoryLimitDenominator * memoryLimitNumerator
}

// memAvailable is MemAvailable of /proc/meminfo in bytes, or 0.
func memAvailable(meminfo []byte) int64 {
	for _, line := range bytes.Split(meminfo, []byte("\n")) {
		value, ok := bytes.CutPrefix(line, []byte("MemAvailable:"))
		if !ok {
			continue
		}
		fields := bytes.Fields(value)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// cgroupLimit is the smallest memory limit on the process's cgroup and its
// ancestors, from /proc/self/cgroup (v2's memory.max under
// /sys/fs/cgroup, v1's memory.limit_in_bytes under /sys/fs/cgroup/memory),
// or 0 when none is set. read returns a file's contents or nil.
func cgroupLimit(selfCgroup []byte, read func(string) []byte) int64 {
	var smallest int64
	consider := func(file string) {
		data := bytes.TrimSpace(read(file))
		n, err := strconv.ParseInt(string(data), 10, 64)
		// "max" (v2) or a page-rounded MaxInt64 (v1) is no limit.
		if err != nil || n <= 0 || n >= 1<<62 {
			return
		}
		if smallest == 0 || n < smallest {
			smallest = n
		}
	}
	for _, line := range bytes.Split(selfCgroup, []byte("\n")) {
		// hierarchy-ID:controllers:path
		fields := bytes.SplitN(line, []byte(":"), 3)
		if len(fields) != 3 {
			continue
		}
		var root, file string
		switch controllers := string(fields[1]); {
		case string(fields[0]) == "0" && controllers == "":
			root, file = "/sys/fs/cgroup", "memory.max"
		case hasController(controllers, "memory"):
			root, file = "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for dir := path.Clean("/" + string(fields[2])); ; dir = path.Dir(dir) {
			consider(path.Join(root, dir, file))
			if dir == "/" {
				break
			}
		}
	}
	return smallest
}

func hasController(list, name string) bool {
	return slices.Contains(strings.Split(list, ","), name)
}

func readFileOrNil(name string) []byte {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	return data
}
