// The DevTools page: its only job is to add the OUI panel.
chrome.devtools.panels.create('OUI', '', 'panel.html');
