"""What makes rebuilds exact and cheap: the code digest, stored indexes, job reuse, page summaries and the build stamp."""
