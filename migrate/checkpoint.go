package migrate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// CheckpointStore keeps a migration's position (see SaveCheckpoints).
// Load returns "" when nothing was saved.
type CheckpointStore interface {
	Load(ctx context.Context) (string, error)
	Save(ctx context.Context, position string) error
}

// FileCheckpoint is a CheckpointStore in the file at path, replaced
// atomically (written beside it, then renamed) on each Save.
func FileCheckpoint(path string) CheckpointStore { return fileCheckpoint(path) }

type fileCheckpoint string

func (f fileCheckpoint) Load(context.Context) (string, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

func (f fileCheckpoint) Save(_ context.Context, position string) error {
	tmp, err := os.CreateTemp(filepath.Dir(string(f)), filepath.Base(string(f))+".*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(position)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), string(f))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
