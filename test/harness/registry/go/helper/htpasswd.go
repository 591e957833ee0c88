package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// writeHtpasswd reads "name:password" lines and writes "name:bcrypt-hash" lines, the
// only hash format the registry's htpasswd access controller accepts.
func writeHtpasswd(input io.Reader, path string) error {
	var out strings.Builder
	scanner := bufio.NewScanner(input)
	line := 0
	for scanner.Scan() {
		line++
		text := scanner.Text()
		if text == "" {
			continue
		}
		name, password, ok := strings.Cut(text, ":")
		if !ok || name == "" {
			return fmt.Errorf("input line %d is not name:password", line)
		}
		// The minimum cost keeps registry start-up fast; these files guard test registries only.
		hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
		if err != nil {
			return fmt.Errorf("hashing the password of user %q: %w", name, err)
		}
		fmt.Fprintf(&out, "%s:%s\n", name, hash)
	}
	if err := scanner.Err(); err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
