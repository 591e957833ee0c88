// fleet-pki writes the certificates and keys of one local cluster (standard library only).
module timoni-fleet/test/fleet/pki

go 1.26.0
