// Package options is a stand-in for the MongoDB driver's options package.
package options

type IndexOptions struct {
	Unique             *bool
	ExpireAfterSeconds *int32
	Name               *string
}

func Index() *IndexOptions { return &IndexOptions{} }

func (i *IndexOptions) SetUnique(b bool) *IndexOptions { i.Unique = &b; return i }

func (i *IndexOptions) SetExpireAfterSeconds(s int32) *IndexOptions {
	i.ExpireAfterSeconds = &s
	return i
}

func (i *IndexOptions) SetName(n string) *IndexOptions { i.Name = &n; return i }
