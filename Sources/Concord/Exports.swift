// `import Concord` is all a user needs: it re-exports the layers below.
@_exported import ConcordStore
@_exported import ConcordSync
