/*
 * The /docs page's own script, after Swagger UI's (a same-origin file: the page's CSP refuses inline
 * code). Swagger UI renders selects, buttons and code samples that assistive technology cannot name
 * or reach by keyboard; as it renders them (operations open lazily), this names each and makes each
 * scrollable sample focusable.
 */
(() => {
  /** Swagger UI's buttons that hold only an icon, and what they do. */
  const UNNAMED_BUTTONS = [
    ['.dark-mode-toggle button', 'Dark mode'],
    ['.copy-to-clipboard button', 'Copy to clipboard'],
    ['button.close-modal', 'Close'],
  ];

  const selectName = (select) => {
    if (select.id === 'servers') return 'Server';
    if (select.classList.contains('examples-select')) return 'Example';
    const row = select.closest('tr[data-param-name]');
    if (row) return row.getAttribute('data-param-name');
    const responses = select.closest('.responses-wrapper, .response-controls');
    if (responses) return 'Media type';
    return 'Choose';
  };

  const repair = (root) => {
    for (const select of root.querySelectorAll('select:not([aria-label])')) {
      select.setAttribute('aria-label', selectName(select));
    }
    for (const input of root.querySelectorAll('tr[data-param-name] input:not([aria-label])')) {
      input.setAttribute('aria-label', input.closest('tr').getAttribute('data-param-name'));
    }
    for (const [selector, name] of UNNAMED_BUTTONS) {
      for (const button of root.querySelectorAll(`${selector}:not([aria-label])`)) {
        button.setAttribute('aria-label', name);
      }
    }
    // "Authorize" and "Logout" named otherwise for assistive technology: a voice user says what is shown.
    for (const button of root.querySelectorAll('.auth-btn-wrapper button[aria-label]')) {
      const text = button.textContent.trim();
      if (text && !button.getAttribute('aria-label').includes(text)) button.removeAttribute('aria-label');
    }
    for (const image of root.querySelectorAll('img:not([alt])')) image.setAttribute('alt', '');
    for (const code of root.querySelectorAll('.highlight-code > pre:not([tabindex])')) {
      code.setAttribute('tabindex', '0');
    }
  };

  // The Authorize dialog is rendered inside #swagger-ui too.
  const page = document.getElementById('swagger-ui');
  if (!page) return;
  repair(page);
  new MutationObserver(() => repair(page)).observe(page, { childList: true, subtree: true });
})();
