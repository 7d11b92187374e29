// Package mongo is a stand-in for the MongoDB driver.
package mongo

import (
	"context"
	"net"

	"go.mongodb.org/mongo-driver/mongo/options"
)

type Client struct{ conn net.Conn }

func (c *Client) Database(name string) *Database { return &Database{} }

type Database struct{}

func (d *Database) Collection(name string) *Collection { return &Collection{} }

type Collection struct{}

type InsertOneResult struct{ InsertedID interface{} }
type DeleteResult struct{ DeletedCount int64 }
type UpdateResult struct{ MatchedCount, ModifiedCount int64 }
type SingleResult struct{}

func (s *SingleResult) Decode(v interface{}) error { return nil }

func (c *Collection) InsertOne(ctx context.Context, doc interface{}) (*InsertOneResult, error) {
	return nil, nil
}
func (c *Collection) DeleteOne(ctx context.Context, filter interface{}) (*DeleteResult, error) {
	return nil, nil
}
func (c *Collection) DeleteMany(ctx context.Context, filter interface{}) (*DeleteResult, error) {
	return nil, nil
}
func (c *Collection) FindOne(ctx context.Context, filter interface{}) *SingleResult { return nil }
func (c *Collection) UpdateOne(ctx context.Context, filter, update interface{}) (*UpdateResult, error) {
	return nil, nil
}
func (c *Collection) Indexes() IndexView { return IndexView{} }

type IndexModel struct {
	Keys    interface{}
	Options *options.IndexOptions
}

type IndexView struct{}

func (iv IndexView) CreateOne(ctx context.Context, model IndexModel) (string, error) { return "", nil }
func (iv IndexView) CreateMany(ctx context.Context, models []IndexModel) ([]string, error) {
	return nil, nil
}
