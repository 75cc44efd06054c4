"""The SQLite state database: schema and migrations, connections, stored texts, results as a build reads them."""
