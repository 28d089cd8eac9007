/* empty: the generated header includes <cstdint> and <cstddef> itself */
