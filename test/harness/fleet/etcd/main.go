// Command etcd is the etcd server, built from its Go module so that the local fleet does
// not depend on a distribution's package.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
