package lockfacts

import (
	"go/ast"
	"go/types"
	"strings"
	"time"
)

// This file reads the Redis forms of a lock: go-redis SetArgs options and
// raw commands (SET ... NX PX, SETNX, EXPIRE, DEL, GETSET, EVAL).

// classifySetArgs reads go-redis SetArgs{Mode: "NX", TTL: d}: a lock when
// the Mode is the constant "NX"; no expiry when neither TTL nor ExpireAt is
// set (or KeepTTL is true).
func classifySetArgs(info *types.Info, op *Op, opts ast.Expr) bool {
	lit, ok := ast.Unparen(opts).(*ast.CompositeLit)
	if !ok {
		return false
	}
	var mode string
	hasTTL, ttlUnknown := false, false
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		name, _ := kv.Key.(*ast.Ident)
		if name == nil {
			return false
		}
		switch name.Name {
		case "Mode":
			m, ok := StringConst(info, kv.Value)
			if !ok {
				return false
			}
			mode = strings.ToUpper(m)
		case "TTL":
			op.TTLExpr = kv.Value
			if d, ok := IntConst(info, kv.Value); ok {
				if d > 0 {
					hasTTL, op.TTLKnown, op.TTL = true, true, time.Duration(d)
				}
			} else {
				ttlUnknown = true
			}
		case "ExpireAt":
			hasTTL = true
		case "KeepTTL":
			// a new key has no TTL to keep
		}
	}
	if mode != "NX" {
		return false
	}
	op.Kind = Acquire
	op.Cmd = "SET"
	op.NoTTL = !hasTTL && !ttlUnknown
	if ttlUnknown {
		op.TTLKnown = false
	}
	return true
}

// classifyCmd reads a raw Redis command: Do(ctx, "SET", k, v, "NX", "PX", 30000).
func classifyCmd(info *types.Info, op *Op, args []ast.Expr, i int) bool {
	if i >= len(args) {
		return false
	}
	cmd, ok := StringConst(info, args[i])
	if !ok {
		return false
	}
	op.Cmd = strings.ToUpper(cmd)
	rest := args[i+1:]
	if op.Spread && len(rest) > 0 {
		// Do("DEL", keys...): the keys are not visible one by one.
		if op.Cmd != "DEL" && op.Cmd != "UNLINK" {
			return false
		}
	}
	key := func() {
		if len(rest) > 0 {
			op.Key = rest[0]
			op.KeyConst, op.IsKeyConst = StringConst(info, rest[0])
		}
	}
	switch op.Cmd {
	case "SETNX":
		if len(rest) < 2 {
			return false
		}
		key()
		op.Kind, op.NoTTL = Acquire, true
	case "SET":
		if len(rest) < 2 {
			return false
		}
		key()
		nx, ttl := false, false
		for j := 2; j < len(rest); j++ {
			w, ok := StringConst(info, rest[j])
			if !ok {
				// a value after EX/PX is the TTL itself; anything else
				// unknown makes the whole command unknown
				if j > 2 {
					if p, _ := StringConst(info, rest[j-1]); isTTLWord(p) {
						if d, ok := IntConst(info, rest[j]); ok {
							op.TTLKnown, op.TTL = true, ttlUnit(p, d)
						}
						op.TTLExpr = rest[j]
						continue
					}
				}
				return false
			}
			switch w = strings.ToUpper(w); {
			case w == "NX":
				nx = true
			case isTTLWord(w):
				ttl = true
				if j+1 < len(rest) {
					op.TTLExpr = rest[j+1]
					if d, ok := IntConst(info, rest[j+1]); ok {
						op.TTLKnown, op.TTL = true, ttlUnit(w, d)
					} else if s, ok := StringConst(info, rest[j+1]); ok {
						_ = s // "30000" as a string: a TTL all the same
					}
					j++
				}
			}
		}
		if !nx {
			return false
		}
		op.Kind, op.NoTTL = Acquire, !ttl
	case "DEL", "UNLINK":
		key()
		op.Kind = Delete
	case "GET":
		key()
		op.Kind = Get
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		key()
		op.Kind = Expire
		if len(rest) > 1 {
			op.TTLExpr = rest[1]
		}
	case "GETSET":
		key()
		op.Kind = Takeover
	case "EVAL", "EVALSHA":
		// EVAL script numkeys key...
		if len(rest) >= 3 {
			op.Key = rest[2]
			op.KeyConst, op.IsKeyConst = StringConst(info, rest[2])
		}
		op.Kind = Script
	default:
		return false
	}
	return true
}

func isTTLWord(w string) bool {
	switch strings.ToUpper(w) {
	case "EX", "PX", "EXAT", "PXAT":
		return true
	}
	return false
}

func ttlUnit(w string, d int64) time.Duration {
	switch strings.ToUpper(w) {
	case "EX":
		return time.Duration(d) * time.Second
	case "PX":
		return time.Duration(d) * time.Millisecond
	}
	return 0
}
