// go-smb2-bench: the go-smb2 baseline of scripts/bench-smb.py. It writes or reads one file on
// an SMB share with github.com/hirochachacha/go-smb2 (Debian's
// golang-github-hirochachacha-go-smb2-dev) and prints the transfer rate in MB/s.
//
//	go-smb2-bench -addr 127.0.0.1:PORT -user U -password P -share test -op put|get \
//	    -local FILE -remote NAME
//
// go-smb2 encrypts when the server or share asks for it and cannot be told to otherwise.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/hirochachacha/go-smb2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:445", "server address")
	user := flag.String("user", "", "user name")
	password := flag.String("password", "", "password")
	share := flag.String("share", "test", "share name")
	op := flag.String("op", "get", "put or get")
	local := flag.String("local", "", "local file")
	remote := flag.String("remote", "", "file on the share")
	flag.Parse()

	conn, err := net.Dial("tcp", *addr)
	check(err)
	defer conn.Close()
	d := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: *user, Password: *password}}
	s, err := d.Dial(conn)
	check(err)
	defer s.Logoff()
	fs, err := s.Mount(*share)
	check(err)
	defer fs.Umount()

	start := time.Now()
	var n int64
	if *op == "put" {
		in, err := os.Open(*local)
		check(err)
		out, err := fs.Create(*remote)
		check(err)
		n, err = copyLarge(out, in)
		check(err)
		check(out.Close())
		in.Close()
	} else {
		in, err := fs.Open(*remote)
		check(err)
		out, err := os.Create(*local)
		check(err)
		n, err = copyLarge(out, in)
		check(err)
		check(out.Close())
		in.Close()
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("%.1f\n", float64(n)/1e6/secs)
}

// copyLarge copies in 8 MiB steps: io.Copy's 32 KiB would make every step a round trip, which
// is not how a careful user of go-smb2 moves a large file (its File splits each step into the
// server's maximum READ/WRITE size itself).
func copyLarge(dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 8<<20)
	var total int64
	for {
		n, err := io.ReadFull(src, buf)
		if n > 0 {
			w, werr := dst.Write(buf[:n])
			total += int64(w)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-smb2-bench:", err)
		os.Exit(1)
	}
}
