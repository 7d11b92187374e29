package effects

import (
	"go/constant"
	"testing"
)

// TestParamTestEval covers the normalisations and kinds the fixtures
// (testdata/src/le1001/dispatch) do not all reach.
func TestParamTestEval(t *testing.T) {
	str, num := constant.MakeString, constant.MakeInt64
	cases := []struct {
		test         ParamTest
		arg          constant.Value
		holds, known bool
	}{
		{ParamTest{Value: "GET", Equal: true}, str("GET"), true, true},
		{ParamTest{Value: "GET", Equal: true}, str("get"), false, true},
		{ParamTest{Value: "GET", Equal: false}, str("POST"), true, true},
		{ParamTest{Value: "GET", Norm: "upper", Equal: true}, str("get"), true, true},
		{ParamTest{Value: "get", Norm: "upper", Equal: true}, str("get"), false, true}, // ToUpper(x) is never "get"
		{ParamTest{Value: "post", Norm: "lower", Equal: true}, str("POST"), true, true},
		{ParamTest{Value: "post", Norm: "lower", Equal: false}, str("Post"), false, true},
		{ParamTest{Value: "get", Norm: "fold", Equal: true}, str("GeT"), true, true},
		{ParamTest{Value: "get", Norm: "fold", Equal: false}, str("put"), true, true},
		{ParamTest{Value: "2", Int: true, Equal: true}, num(2), true, true},
		{ParamTest{Value: "2", Int: true, Equal: false}, num(2), false, true},
		{ParamTest{Value: "-1", Int: true, Equal: true}, num(-1), true, true},
		{ParamTest{Value: "POST", Also: []string{"PUT"}, Equal: true}, str("PUT"), true, true},
		{ParamTest{Value: "POST", Also: []string{"PUT"}, Equal: true}, str("HEAD"), false, true},
		{ParamTest{Value: "1", Also: []string{"3"}, Int: true, Equal: true}, num(3), true, true},
		{ParamTest{Value: "post", Also: []string{"put"}, Norm: "lower", Equal: true}, str("PUT"), true, true},
		// another kind than the test's constant decides nothing
		{ParamTest{Value: "2", Int: true, Equal: true}, str("2"), false, false},
		{ParamTest{Value: "GET", Equal: true}, num(1), false, false},
		{ParamTest{Value: "GET", Norm: "title", Equal: true}, str("GET"), false, false},
	}
	for _, c := range cases {
		holds, known := c.test.eval(c.arg)
		if holds != c.holds || known != c.known {
			t.Errorf("%+v on %s: got holds=%v known=%v, want %v %v", c.test, c.arg, holds, known, c.holds, c.known)
		}
	}
}
