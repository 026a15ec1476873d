// Package redoc embeds Redoc's standalone bundle (the npm package redoc,
// bundles/redoc.standalone.js, committed unchanged), the renderer of the
// API reference page, so that the handler serves every asset of the page
// itself and the build needs no npm. README.txt says where the file comes
// from and how to update it (.ci/update-redoc).
package redoc
