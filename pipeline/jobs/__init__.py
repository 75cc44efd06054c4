"""The durable job machinery: the queue of processing jobs, planning which must exist, the workers that run them."""
