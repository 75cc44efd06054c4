"""What makes rebuilds exact and cheap: the code digest, kept indexes, job reuse, page summaries and the build stamp."""
