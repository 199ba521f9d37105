"""tenantlab's load engine library: what every locustfile of traffic/ shares."""
