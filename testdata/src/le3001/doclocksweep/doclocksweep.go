// Package doclocksweep: the acquire first deletes a stale holder's document
// by comparing its creation time (twin: doclock.IDLocker, which never
// compares).
package doclocksweep

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

type IDLocker struct{ locks *mongo.Collection }

func (l *IDLocker) TryLock(ctx context.Context, name, owner string) bool {
	cutoff := time.Now().Add(-time.Minute)
	if _, err := l.locks.DeleteOne(ctx, bson.M{"_id": name, "created_at": bson.M{"$lt": cutoff}}); err != nil {
		return false
	}
	_, err := l.locks.InsertOne(ctx, bson.M{"_id": name, "owner": owner, "created_at": time.Now()})
	return err == nil
}

func (l *IDLocker) Unlock(ctx context.Context, name, owner string) error {
	_, err := l.locks.DeleteOne(ctx, bson.D{{Key: "_id", Value: name}, {Key: "owner", Value: owner}})
	return err
}
