// Command fleet-pki writes the key material of one local test cluster into a folder:
//
//	ca.crt, ca.key                     the cluster's certificate authority
//	apiserver.crt, apiserver.key       kube-apiserver's serving certificate (127.0.0.1, localhost, in-cluster names)
//	admin.crt, admin.key               client certificate of user fleet-admin in group system:masters
//	controller-manager.crt/.key        client certificate of system:kube-controller-manager
//	scheduler.crt/.key                 client certificate of system:kube-scheduler
//	user.crt, user.key                 client certificate of user fleet-user, with no group and no role
//	service-account.key, .pub          key pair that signs and verifies service-account tokens
//
// Keys are ECDSA P-256 in PKCS#8 (private) and PKIX (public) PEM. Usage:
//
//	fleet-pki -dir DIR [-service-ip 10.0.0.1]
package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

type issuer struct {
	cert *x509.Certificate
	key  crypto.Signer
}

type writer struct{ dir string }

func (w writer) write(name string, blockType string, der []byte, mode os.FileMode) error {
	data := pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der})
	path := filepath.Join(w.dir, name)
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func (w writer) writeKeyPair(base string, certDER []byte, key *ecdsa.PrivateKey) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding the key of %s: %w", base, err)
	}
	if err := w.write(base+".key", "PRIVATE KEY", keyDER, 0o600); err != nil {
		return err
	}
	return w.write(base+".crt", "CERTIFICATE", certDER, 0o644)
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func serialNumber() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
}

func template(subject pkix.Name, validFor time.Duration) (*x509.Certificate, error) {
	serial, err := serialNumber()
	if err != nil {
		return nil, fmt.Errorf("drawing a serial number: %w", err)
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      subject,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validFor),
	}, nil
}

func newCA(w writer, commonName string) (issuer, error) {
	key, err := newKey()
	if err != nil {
		return issuer{}, fmt.Errorf("generating the CA key: %w", err)
	}
	tmpl, err := template(pkix.Name{CommonName: commonName}, 10*365*24*time.Hour)
	if err != nil {
		return issuer{}, err
	}
	tmpl.IsCA = true
	tmpl.BasicConstraintsValid = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return issuer{}, fmt.Errorf("signing the CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return issuer{}, fmt.Errorf("reading back the CA certificate: %w", err)
	}
	if err := w.writeKeyPair("ca", der, key); err != nil {
		return issuer{}, err
	}
	return issuer{cert: cert, key: key}, nil
}

type leaf struct {
	base     string
	subject  pkix.Name
	usage    x509.ExtKeyUsage
	dnsNames []string
	ips      []net.IP
}

func (ca issuer) issue(w writer, l leaf) error {
	key, err := newKey()
	if err != nil {
		return fmt.Errorf("generating the key of %s: %w", l.base, err)
	}
	tmpl, err := template(l.subject, 2*365*24*time.Hour)
	if err != nil {
		return err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{l.usage}
	tmpl.DNSNames = l.dnsNames
	tmpl.IPAddresses = l.ips
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return fmt.Errorf("signing the certificate of %s: %w", l.base, err)
	}
	return w.writeKeyPair(l.base, der, key)
}

func writeServiceAccountKeys(w writer) error {
	key, err := newKey()
	if err != nil {
		return fmt.Errorf("generating the service-account key: %w", err)
	}
	private, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding the service-account key: %w", err)
	}
	public, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return fmt.Errorf("encoding the service-account public key: %w", err)
	}
	if err := w.write("service-account.key", "PRIVATE KEY", private, 0o600); err != nil {
		return err
	}
	return w.write("service-account.pub", "PUBLIC KEY", public, 0o644)
}

func run(dir string, serviceIP string) error {
	ip := net.ParseIP(serviceIP)
	if ip == nil {
		return fmt.Errorf("-service-ip %q is not an IP address", serviceIP)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	w := writer{dir: dir}
	ca, err := newCA(w, "fleet-ca")
	if err != nil {
		return err
	}
	leaves := []leaf{
		{
			base:    "apiserver",
			subject: pkix.Name{CommonName: "kube-apiserver"},
			usage:   x509.ExtKeyUsageServerAuth,
			dnsNames: []string{
				"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
				"kubernetes.default.svc.cluster.local",
			},
			ips: []net.IP{net.ParseIP("127.0.0.1"), ip},
		},
		{base: "admin", subject: pkix.Name{CommonName: "fleet-admin", Organization: []string{"system:masters"}}, usage: x509.ExtKeyUsageClientAuth},
		{base: "controller-manager", subject: pkix.Name{CommonName: "system:kube-controller-manager"}, usage: x509.ExtKeyUsageClientAuth},
		{base: "scheduler", subject: pkix.Name{CommonName: "system:kube-scheduler"}, usage: x509.ExtKeyUsageClientAuth},
		{base: "user", subject: pkix.Name{CommonName: "fleet-user"}, usage: x509.ExtKeyUsageClientAuth},
	}
	for _, l := range leaves {
		if err := ca.issue(w, l); err != nil {
			return err
		}
	}
	return writeServiceAccountKeys(w)
}

func main() {
	dir := flag.String("dir", "", "folder to write the files into (created if missing)")
	serviceIP := flag.String("service-ip", "10.0.0.1", "ClusterIP of the kubernetes Service, added to the serving certificate")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "fleet-pki: -dir is required")
		os.Exit(2)
	}
	if err := run(*dir, *serviceIP); err != nil {
		fmt.Fprintf(os.Stderr, "fleet-pki: %v\n", err)
		os.Exit(1)
	}
}
