package lockrenewal

import (
	"go/ast"
	"time"

	"github.com/gatesift/gatesift-vet/analyzers/lockfacts"
)

// SQS-like receives: a received message is hidden from the queue's other
// consumers for the receive's VisibilityTimeout and delivered again once it
// passes; ChangeMessageVisibility is the only way to extend it. The takeover
// is the queue's own redelivery, so the receive is judged on its own when
// its VisibilityTimeout is a constant (without it the queue's configured
// default applies, which the code does not show).

func (c *checker) visibilityClaims(calls []kbCall) []*queueClaim {
	renewed := false
	var receives []kbCall
	for _, k := range calls {
		switch k.api.Kind {
		case "visibility-extend":
			renewed = true // keyed by a receipt handle; any one may be the item's
		case "visibility-receive":
			receives = append(receives, k)
		}
	}
	if renewed {
		return nil
	}
	var out []*queueClaim
	for _, k := range receives {
		i, ok := k.api.Arg("input")
		if !ok || i >= len(k.call.Args) {
			continue
		}
		lit := lockfacts.ResolveLiteral(c.info, k.decl.Body, k.call.Args[i], k.call.Pos())
		if lit == nil {
			continue
		}
		var field *ast.KeyValueExpr
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "VisibilityTimeout" {
					field = kv
				}
			}
		}
		if field == nil {
			continue // the queue's default: not readable here
		}
		var d time.Duration
		var how string
		if secs, ok := lockfacts.IntConst(c.info, field.Value); ok {
			d, how = time.Duration(secs)*time.Second, "VisibilityTimeout "+lockfacts.ExprText(field.Value)+" s"
		} else if v, text, ok := c.fieldDefault(field.Value); ok {
			// a field of seconds set from constants only
			d, how = time.Duration(v)*time.Second, "VisibilityTimeout "+text
		}
		if d <= 0 {
			continue
		}
		out = append(out, &queueClaim{
			call: k.call,
			what: lockfacts.ExprText(k.call.Fun) + " (the messages are hidden from other consumers for the visibility timeout)",
			takeovers: []takeover{{node: field, expiry: d, expiryOf: how,
				what: "the queue's redelivery of messages whose visibility timeout passed"}},
			fix: func(d time.Duration) string {
				return "extend the visibility of each message while it is handled (ChangeMessageVisibility with its ReceiptHandle, from a goroutine every " +
					lockfacts.FmtDuration((d / 3).Truncate(time.Second)) + ")"
			},
			seeds: []*ast.CallExpr{k.call},
		})
	}
	return out
}
