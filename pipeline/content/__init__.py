"""From the content folder to captures: parsing source files, scanning, capturing, and the facts passes read."""
