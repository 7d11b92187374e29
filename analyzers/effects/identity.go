package effects

// The running instance's identity in value flow: values that name this
// replica (its hostname, pod name, instance ID) and random IDs minted for
// one call, which key per-replica work and claims.

import (
	"go/constant"
	"go/token"
	"go/types"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// identityEnv: environment variables that name the running instance. An
// orchestrator prefixes the ID it gives each running copy with its own name
// (NOMAD_ALLOC_ID, MESOS_TASK_ID, a platform's <NAME>_MACHINE_ID): with one
// leading word, a machine, allocation, task or replica ID is the copy's. A
// prefixed instance ID is not (DB_INSTANCE_ID names a shared database).
var identityEnv = regexp.MustCompile(`(?i)^((my_)?(hostname|host|pod_?name|pod_?ip|node_?name|node_?id|instance_?id|instance|replica_?id|machine_?id|server_?id|worker_?id|alloc_?id)|[a-z0-9]+_(machine|alloc|task|replica)_?id)$`)

// identity tells whether v is the running instance's own identity, and
// names its source: os.Hostname(), os.Getenv("POD_NAME"), a field
// initialised from them, a value built from one of those (host + ":" +
// port). A parameter or a field set outside this package counts when its
// name says so (instanceID, hostname): the value is then out of sight.
func (fl *flow) identity(v ssa.Value, depth int) string {
	if v == nil || depth > maxDepth {
		return ""
	}
	switch v := v.(type) {
	case *ssa.Extract:
		if c, ok := v.Tuple.(*ssa.Call); ok && v.Index == 0 {
			return fl.identity(c, depth+1)
		}
	case *ssa.Call:
		if callee := v.Call.StaticCallee(); callee != nil {
			if fn, ok := callee.Object().(*types.Func); ok && fn.Pkg() != nil {
				switch path, name := fn.Pkg().Path(), fn.Name(); {
				case path == "os" && (name == "Hostname" || name == "Getpid"):
					return "os." + name + "()"
				case path == "os" && (name == "Getenv" || name == "LookupEnv") && len(v.Call.Args) == 1:
					if k, ok := fl.text(v.Call.Args[0], depth+1); ok && identityEnv.MatchString(k) {
						return "os." + name + "(\"" + k + "\")"
					}
					return ""
				case path == "fmt" && strings.HasPrefix(name, "Sprint") && len(v.Call.Args) > 0:
					for _, a := range sliceElems(v.Call.Args[len(v.Call.Args)-1]) {
						if id := fl.identity(a, depth+1); id != "" {
							return id
						}
					}
					return ""
				}
			}
			if callee.Blocks != nil {
				for _, b := range callee.Blocks {
					if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(ret.Results) > 0 {
						if id := fl.identity(ret.Results[0], depth+1); id != "" {
							return id
						}
					}
				}
				return ""
			}
		}
		return identityAccessor(&v.Call)
	case *ssa.BinOp:
		if id := fl.identity(v.X, depth+1); id != "" {
			return id
		}
		return fl.identity(v.Y, depth+1)
	case *ssa.MakeInterface:
		return fl.identity(v.X, depth+1)
	case *ssa.ChangeType:
		return fl.identity(v.X, depth+1)
	case *ssa.Convert:
		return fl.identity(v.X, depth+1)
	case *ssa.Phi:
		// Every path must carry the identity.
		id := ""
		for _, e := range v.Edges {
			if id = fl.identity(e, depth+1); id == "" {
				return ""
			}
		}
		return id
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return fl.storedIdentity(storeKey(v.X), depth)
		}
	case *ssa.Field:
		return fl.storedIdentity(fieldOf(v.X.Type(), v.Field), depth)
	case *ssa.FreeVar:
		id := ""
		for _, b := range bindings(v) {
			if id = fl.identity(b, depth+1); id == "" {
				return ""
			}
		}
		return id
	case *ssa.Parameter:
		if identityName.MatchString(v.Name()) {
			return "the parameter " + v.Name()
		}
	}
	return ""
}

// identityName: names of values that hold the instance's identity, for
// parameters and fields whose source this package does not show.
// An address names the instance only as the instance's or self's
// (instanceAddr, selfAddress, myNodeAddr): a serverAddr or nodeAddr is as
// often a peer's.
var identityName = regexp.MustCompile(`(?i)^(host(name)?|self(id)?|(my|own|this)?(instance|node|pod|replica|machine|server|worker|member)(_?(id|name|key|uid))|(pod|node)name|(my|own|this)?(instance|self)_?addr(ess)?|(my|own|this)(node|pod|replica|machine|server|worker|member)_?addr(ess)?)$`)

// identityAccessor: a method of another package (or of an interface) that
// takes nothing and returns a string named for the instance's identity
// (lifecycler.GetInstanceAddr(), member.NodeID()): its body is out of
// sight, so its name decides, as for a field set elsewhere.
func identityAccessor(c *ssa.CallCommon) string {
	name := ""
	switch {
	case c.IsInvoke():
		name = c.Method.Name()
	case c.StaticCallee() != nil && c.StaticCallee().Signature.Recv() != nil:
		name = c.StaticCallee().Name()
	default:
		return ""
	}
	sig := c.Signature()
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
		return ""
	}
	if b, ok := sig.Results().At(0).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return ""
	}
	if !identityName.MatchString(strings.TrimPrefix(name, "Get")) {
		return ""
	}
	return "the accessor " + name + "()"
}

// storedIdentity: every value this package stores into the field or
// variable is an identity; with none in sight, its name decides.
func (fl *flow) storedIdentity(key any, depth int) string {
	if key == nil {
		return ""
	}
	vals := fl.stores[key]
	if len(vals) == 0 {
		var name string
		switch k := key.(type) {
		case *types.Var:
			name = k.Name()
		case *ssa.Global:
			name = k.Name()
		}
		if identityName.MatchString(name) {
			return "the field " + name
		}
		return ""
	}
	id := ""
	for _, v := range vals {
		if id = fl.identity(v, depth+1); id == "" && (randomID(v, 0) || mintedFallback(v)) {
			id = "an ID the instance generated for itself"
		}
		if id == "" {
			return ""
		}
	}
	return id
}

// idPackage: packages that mint random identifiers (UUIDs, xids, ULIDs,
// KSUIDs, nano IDs).
var idPackage = regexp.MustCompile(`(^|/)(uuid|go\.uuid|xid|ulid|ksuid|go-nanoid|nanoid)(/v\d+)?$`)

// randomID: v is a freshly minted random identifier (uuid.New(),
// uuid.NewString(), uuid.Must(uuid.NewRandom()).String(), xid.New()).
// Stored once into a field, it names the instance (or the holder) that
// minted it; used directly it is a new key per call, and it does not count.
func randomID(v ssa.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch v := unwrap(v).(type) {
	case *ssa.Extract:
		return randomID(v.Tuple, depth+1)
	case *ssa.Call:
		callee := v.Call.StaticCallee()
		if callee == nil {
			return false
		}
		fn, _ := callee.Object().(*types.Func)
		if fn == nil || fn.Pkg() == nil {
			return false
		}
		if idPackage.MatchString(fn.Pkg().Path()) {
			if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
				// id.String() of a minted id
				return fn.Name() == "String" && len(v.Call.Args) > 0 && randomID(v.Call.Args[0], depth+1)
			}
			return strings.HasPrefix(fn.Name(), "New") || fn.Name() == "Must" || fn.Name() == "Make"
		}
	case *ssa.UnOp:
		if v.Op == token.MUL {
			return randomID(v.X, depth+1) // the receiver of id.String() on a pointer
		}
	}
	return false
}

// mintedFallback: v is a configured name that an instance leaving it
// unset replaces with one it mints (name := cfg.Name; if name == "" {
// name = uuid.NewString() }): a phi of two edges, one a minted ID, the
// other a value that the function tests for the empty string. Every
// instance then has its own name unless an operator gives two the same
// one, which the option's own contract (a per-instance name) forbids. A
// fallback taken on any other test (a flag, a mode) is not one: the
// instances that do not take it share the configured value.
func mintedFallback(v ssa.Value) bool {
	phi, ok := unwrap(v).(*ssa.Phi)
	if !ok || len(phi.Edges) != 2 {
		return false
	}
	for i, e := range phi.Edges {
		if randomID(e, 0) && emptyTested(phi.Edges[1-i]) {
			return true
		}
	}
	return false
}

// emptyTested: an if branches on v == "" (or v != "").
func emptyTested(v ssa.Value) bool {
	if v.Referrers() == nil {
		return false
	}
	for _, ref := range *v.Referrers() {
		b, ok := ref.(*ssa.BinOp)
		if !ok || b.Op != token.EQL && b.Op != token.NEQ {
			continue
		}
		other := b.Y
		if other == v {
			other = b.X
		}
		c, ok := other.(*ssa.Const)
		if !ok || c.Value == nil || c.Value.Kind() != constant.String || constant.StringVal(c.Value) != "" {
			continue
		}
		for _, bref := range *b.Referrers() {
			if _, ok := bref.(*ssa.If); ok {
				return true
			}
		}
	}
	return false
}
