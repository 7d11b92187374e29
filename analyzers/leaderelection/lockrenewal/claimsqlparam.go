package lockrenewal

import (
	"go/constant"
	"go/types"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/ssa"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// Lease times computed in Go and passed as statement arguments:
// SET locked_until = ? with time.Now().Add(30*time.Second), and the
// takeover's WHERE locked_until < ? with time.Now(). The arguments are read
// in SSA from the call's variadic slice.

// placeholderArg returns the SSA value of the statement argument a
// placeholder at byte offset at of st.text stands for (? counts the ones
// before it, $n is the n-th).
func (c *checker) placeholderArg(st sqlStmt, at int, ph string) ssa.Value {
	ord := strings.Count(st.text[:at], "?")
	if strings.HasPrefix(ph, "$") {
		n, err := strconv.Atoi(ph[1:])
		if err != nil || n < 1 {
			return nil
		}
		ord = n - 1
	}
	s := c.claimSSA()
	ins := s.calls[st.k.call.Lparen]
	if len(ins) != 1 {
		return nil
	}
	args := ins[0].Common().Args
	if len(args) == 0 {
		return nil
	}
	elems := sliceElems(args[len(args)-1])
	if ord >= len(elems) {
		return nil
	}
	return elems[ord]
}

// sliceElems lists the values stored into a variadic ...any slice, by index.
func sliceElems(v ssa.Value) []ssa.Value {
	sl, ok := v.(*ssa.Slice)
	if !ok {
		return nil
	}
	arr, ok := sl.X.(*ssa.Alloc)
	if !ok || arr.Referrers() == nil {
		return nil
	}
	n := 0
	if at, ok := arr.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Array); ok {
		n = int(at.Len())
	}
	out := make([]ssa.Value, n)
	for _, ref := range *arr.Referrers() {
		ia, ok := ref.(*ssa.IndexAddr)
		if !ok || ia.Referrers() == nil {
			continue
		}
		k, ok := ia.Index.(*ssa.Const)
		if !ok {
			continue
		}
		i, exact := constant.Int64Val(constant.ToInt(k.Value))
		if !exact || i < 0 || int(i) >= n {
			continue
		}
		for _, r := range *ia.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == ia {
				out[i] = st.Val
			}
		}
	}
	return out
}

// timeMethod is the call of a time.Time method named one of names, or nil.
func timeMethod(v ssa.Value, names ...string) *ssa.CallCommon {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	fn := call.Common().StaticCallee()
	if fn == nil || fn.Pkg == nil || fn.Pkg.Pkg.Path() != "time" {
		return nil
	}
	for _, n := range names {
		if fn.Name() == n {
			return call.Common()
		}
	}
	return nil
}

// unwrapTime strips conversions of a time.Time that keep its instant:
// interface boxing, .UTC(), .Format(layout), .Round, .Truncate, .In.
func unwrapTime(v ssa.Value) ssa.Value {
	for {
		if mi, ok := v.(*ssa.MakeInterface); ok {
			v = mi.X
			continue
		}
		if cc := timeMethod(v, "UTC", "Format", "Round", "Truncate", "In", "Local"); cc != nil && cc.Signature().Recv() != nil && len(cc.Args) > 0 {
			v = cc.Args[0]
			continue
		}
		return v
	}
}

// isNow: the value is time.Now() (through unwrapTime).
func isNow(v ssa.Value) bool {
	call, ok := unwrapTime(v).(*ssa.Call)
	if !ok {
		return false
	}
	fn := call.Common().StaticCallee()
	return fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == "time" && fn.Name() == "Now"
}

// nowPlus reads time.Now().Add(d) with d a constant or a field set from
// constants only.
func (c *checker) nowPlus(v ssa.Value) (time.Duration, string, bool) {
	cc := timeMethod(unwrapTime(v), "Add")
	if cc == nil || len(cc.Args) != 2 || !isNow(cc.Args[0]) {
		return 0, "", false
	}
	switch d := cc.Args[1].(type) {
	case *ssa.Const:
		if n, exact := constant.Int64Val(constant.ToInt(d.Value)); exact && n > 0 {
			return time.Duration(n), "time.Now().Add(" + lockfacts.FmtDuration(time.Duration(n)) + ") as its argument", true
		}
	case *ssa.UnOp:
		if fa, ok := d.X.(*ssa.FieldAddr); ok {
			if st, ok := fa.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct); ok {
				if n, how, ok := c.fieldDefaultVar(st.Field(fa.Field)); ok {
					return n, "time.Now().Add(" + how + ") as its argument", true
				}
			}
		}
	}
	return 0, "", false
}

// leaseParam reads a SET list's c = placeholder whose argument is
// time.Now() plus a readable duration.
func (c *checker) leaseParam(st sqlStmt, setAt int, set string) (string, time.Duration, string, bool) {
	if setAt < 0 {
		return "", 0, "", false
	}
	for _, m := range sqlSetParam.FindAllStringSubmatchIndex(set, -1) {
		col, ph := set[m[2]:m[3]], set[m[4]:m[5]]
		arg := c.placeholderArg(st, setAt+m[4], ph)
		if arg == nil {
			continue
		}
		if d, how, ok := c.nowPlus(arg); ok {
			return bareColumn(col), d, how, true
		}
	}
	return "", 0, "", false
}

// expiredParam: the statement takes rows whose column col is before a
// placeholder whose argument is time.Now().
func (c *checker) expiredParam(st sqlStmt, col string) bool {
	if !strings.Contains(st.text, col) {
		return false
	}
	colRe := `(?:[\w"]+\.)?"?` + regexp.QuoteMeta(col) + `"?`
	re := regexp.MustCompile(`(?:^|[^\w.])` + colRe + `\s*<=?\s*(\?|\$\d+)|(\?|\$\d+)\s*>=?\s*` + colRe + `(?:$|[^\w])`)
	for _, m := range re.FindAllStringSubmatchIndex(st.text, -1) {
		g := 2
		if m[2] < 0 {
			g = 4
		}
		if arg := c.placeholderArg(st, m[g], st.text[m[g]:m[g+1]]); arg != nil && isNow(arg) {
			return true
		}
	}
	return false
}
