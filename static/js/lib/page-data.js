// The server sends what the page's scripts need as JSON data blocks: the deck manifest (#deck-data)
// and the key table (#key-data).
export const readJson = (id) => JSON.parse(document.getElementById(id).textContent);
