// Package bson is a stand-in for the MongoDB driver's bson package.
package bson

type E struct {
	Key   string
	Value interface{}
}

type D []E

type M map[string]interface{}
