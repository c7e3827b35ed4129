"""The OpenAPI 3.1 document: built from template.yaml and the catalogue (build.py), served as JSON."""
