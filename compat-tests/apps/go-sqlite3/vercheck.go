// Prints what the test binary's build of go-sqlite3 links at run time: the
// libsqlite3 file the loader mapped and its sqlite_version(), so run.sh can
// check that LD_LIBRARY_PATH picked the library meant.
package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	var v string
	if err := db.QueryRow("select sqlite_version()").Scan(&v); err != nil {
		panic(err)
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		panic(err)
	}
	lib := "?"
	s := bufio.NewScanner(f)
	for s.Scan() {
		if i := strings.Index(s.Text(), "/"); i >= 0 && strings.Contains(s.Text(), "libsqlite3") {
			lib = s.Text()[i:]
			break
		}
	}
	fmt.Printf("sqlite_version() %s from %s\n", v, lib)
}
