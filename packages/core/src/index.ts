// The API of this package is built by its own issue; see the README.
export {};
