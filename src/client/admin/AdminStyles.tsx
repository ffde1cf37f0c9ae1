import adminCss from './admin.css' with { type: 'text' };

/** The staff pages' styles (admin.css), put in the page's head by React once, however many pages draw them. */
export function AdminStyles() {
  return (
    <style href="onramp-admin" precedence="default">
      {adminCss}
    </style>
  );
}
