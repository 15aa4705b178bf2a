"""What leaves the machine: reports that save themselves, artifact bodies, digests, verify."""
